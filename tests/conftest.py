"""Test-suite settings: a headless matplotlib backend before anything imports pyplot."""

import os

os.environ.setdefault("MPLBACKEND", "Agg")
