"""``python -m mechanism`` is not the command line: the model layer imports nothing above it."""
import sys

print("kinematrix: run the command line as `kinematrix ...` or `python -m dynamics ...`", file=sys.stderr)
sys.exit(2)
