"""Synthetic camera frames for tests, evaluation and the demo.

Real photos cannot tell us the colour accuracy on Camel Up's five hues, nor give thousands of
labelled frames under controlled light, so we render them. ``effects`` holds the camera and
lighting degradations shared by every renderer (dice, board); ``dice`` draws the game's dice.
"""
