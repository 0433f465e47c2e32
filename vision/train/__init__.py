"""Training of the learned die classifier: data, split, model, export. Never imported at run time.

The Pi runs only ``vision.dice.classifier`` (the exported ONNX file through ``cv2.dnn``); this
package needs PyTorch (the ``train`` extra) and the labelled real photos beside the repository.
"""
