"""``python -m grains ARGS``: the ``grains`` command (``run``, ``check``, ``post``, ...)."""

import sys

from ._grains import main

sys.exit(main(["grains"] + sys.argv[1:]))
