"""Tests of the questions a snapshot answers about a whole vault (memlsp/queries/)."""
