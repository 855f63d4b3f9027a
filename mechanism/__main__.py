"""``python -m mechanism``: the ``kinematrix`` command line (see :mod:`dynamics.cli`)."""

import sys

from dynamics.cli import main

sys.exit(main())
