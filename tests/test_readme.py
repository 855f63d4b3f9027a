"""The README's promises: it leads with the workbench, and CI runs exactly its test command (its
Python snippets run, and print their numbers, in tests/test_readme_as_written.py)."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def test_readme_leads_with_the_suspension_workbench():
    """The set-up command runs the workbench on a shipped corner file, and the pictures it
    shows are in the repository."""
    blocks = re.findall(r"```(?:sh|text)?\n(.*?)```", README, re.S)
    assert "kinematrix suspension examples/front_axle.toml --analysis parallel --travel -80:80:5 --out " \
           "metrics.csv --plot sheet.png" in blocks[0]
    for image in re.findall(r"\]\((examples/images/[^)]+)\)", README):
        assert (ROOT / image).stat().st_size > 10_000, image


def test_ci_runs_the_readme_test_command():
    """.ci/run ends with the README's test command, character for character."""
    blocks = re.findall(r"```(?:sh|text)?\n(.*?)```", README, re.S)
    test_command = next(b.strip() for b in blocks if "pytest" in b)
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()
    assert ci[-1].strip() == test_command
