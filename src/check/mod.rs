//! Checkers: each property is a pure function of the History (one file each).
