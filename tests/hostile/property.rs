//! Property test (filled in below).
