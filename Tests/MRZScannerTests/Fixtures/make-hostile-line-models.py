"""Writes the hostile line models of LineReaderTests: valid ONNX files that OpenCV loads, built to
hurt the process that runs them, so the tests can show that LineModel's trial in a child process
refuses them and the test process lives on.

  slow.onnx   the right input and output, but about a hundred times the arithmetic of the
              shipped model on a probe line (3x3 convolutions over the line blown up 4 x 4)
  bomb.onnx   a constant of 38 x 2^24 floats (2.5 GB) made at load time from a few bytes

Needs the onnx package (the line model's training environment has it):
  .build/line-model-venv/bin/python Tests/MRZScannerTests/Fixtures/make-hostile-line-models.py
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(7)


def save(graph, name):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="hostile-fixture")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(HERE, name))


def slow():
    # The line blown up 4 x 4 (nearest), 3x3 convolutions over that, pooled back down, then a head
    # with the right output: small weights, a lot of arithmetic.
    nodes, inits = [], []
    channels, layers = 8, 24
    inits.append(numpy_helper.from_array(np.array([1, 1, 4, 4], dtype=np.float32), "scales"))
    nodes.append(helper.make_node("Resize", ["line", "", "scales"], ["big"], mode="nearest"))
    previous = "big"
    for index in range(layers):
        inits.append(numpy_helper.from_array(
            (rng.standard_normal((channels, 1 if index == 0 else channels, 3, 3)) * 0.1).astype(np.float32),
            f"w{index}"))
        out = f"c{index}"
        nodes.append(helper.make_node(
            "Conv", [previous, f"w{index}"], [out], kernel_shape=[3, 3], pads=[1, 1, 1, 1]))
        previous = out
    nodes.append(helper.make_node("MaxPool", [previous], ["pooled"], kernel_shape=[4, 4], strides=[4, 4]))
    inits.append(numpy_helper.from_array(
        (rng.standard_normal((38, channels, 24, 4)) * 0.01).astype(np.float32), "head"))
    nodes.append(helper.make_node("Conv", ["pooled", "head"], ["scores"], kernel_shape=[24, 4], strides=[1, 4]))
    graph = helper.make_graph(
        nodes, "slow", [helper.make_tensor_value_info("line", TensorProto.FLOAT, [1, 1, 24, "width"])],
        [helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, 38, 1, "steps"])], inits)
    save(graph, "slow.onnx")


def bomb():
    shape = numpy_helper.from_array(np.array([1, 38, 1, 1 << 24], dtype=np.int64), "shape")
    nodes = [
        helper.make_node("ConstantOfShape", ["shape"], ["huge"],
                         value=helper.make_tensor("value", TensorProto.FLOAT, [1], [1.0])),
        helper.make_node("ReduceMax", ["line"], ["peak"], keepdims=1),
        helper.make_node("Add", ["huge", "peak"], ["scores"]),
    ]
    graph = helper.make_graph(
        nodes, "bomb", [helper.make_tensor_value_info("line", TensorProto.FLOAT, [1, 1, 24, "width"])],
        [helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, 38, 1, "steps"])], [shape])
    save(graph, "bomb.onnx")


slow()
bomb()
