"""The rules the code relies on, written in docs/."""
