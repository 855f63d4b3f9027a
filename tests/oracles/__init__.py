"""Independent implementations the tests hold kinematrix to (numpy, stacked; see each module)."""
