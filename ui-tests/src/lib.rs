//! Holds the trybuild tests of dcuda's macros; see `tests/`.
