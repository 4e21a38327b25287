"""The command line's commands as both the CLI and a process that has the vault open answer
them: the arguments, and the printed answers to `search` and `links`."""
