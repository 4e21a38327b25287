"""The end-to-end proof of the VS Code extension in code-server, one module per run and the setup
and workbench helpers they share. run_proof.py (beside this package) is the command."""
