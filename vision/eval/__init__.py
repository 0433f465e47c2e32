"""The evaluation tools: accuracy figures of the dice reader, the track reader and the table
set-up over rendered scenes and the real photos (``make eval-vision``, ``python -m vision.eval``).

Why a package of their own: they measure the code the Pi runs, and the Pi never runs them;
kept apart, nothing under ``vision/`` that reads a frame imports them (tests/vision/
test_layering.py checks the modules beside it), and each is ``python -m vision.eval.<part>``.
"""
