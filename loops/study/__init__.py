"""Design studies: many hardpoint variants of one model at once (see :mod:`loops.study.study`)."""
