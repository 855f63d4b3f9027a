"""``python -m dynamics``: the ``kinematrix`` command line (:func:`dynamics.cli.main`)."""

import sys

from dynamics.cli import main

sys.exit(main())
