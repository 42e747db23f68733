"""The examples in examples/python run and reach what they say."""

import pathlib
import runpy

ROOT = pathlib.Path(__file__).resolve().parents[3]


def test_the_restitution_calibration_hits_its_target():
    example = runpy.run_path(str(ROOT / "examples" / "python" / "restitution_calibration.py"))
    # The dashpot tuned for e = 0.5 rebounds on Hertz's spring at about that.
    assert abs(example["rebound"](0.5) - 0.5) < 0.05
    key, e, runs = example["calibrate"](0.6)
    assert abs(e - 0.6) < 1e-3 and runs < 30
