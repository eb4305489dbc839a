//! The ruling engine (being built).
