"""Real editors headless (Neovim, Emacs) and the VS Code extension's copy of the wire schema."""
