"""What the client said it can do with a workspace edit or a completion (its capabilities)."""

from __future__ import annotations

from lsprotocol import types


def _workspace_edit(caps: types.ClientCapabilities) -> types.WorkspaceEditClientCapabilities | None:
    return caps.workspace.workspace_edit if caps.workspace else None


def _resource_operation(caps: types.ClientCapabilities, kind: types.ResourceOperationKind) -> bool:
    edit = _workspace_edit(caps)
    return edit is not None and kind in (edit.resource_operations or [])


def can_create_files(caps: types.ClientCapabilities) -> bool:
    """Whether an edit may make a file (VS Code can; Neovim 0.11 too)."""
    return _resource_operation(caps, types.ResourceOperationKind.Create)


def can_rename_files(caps: types.ClientCapabilities) -> bool:
    return _resource_operation(caps, types.ResourceOperationKind.Rename)


def takes_document_changes(caps: types.ClientCapabilities) -> bool:
    """Versioned edits, as the client allows: Neovim 0.11 announces resource operations only."""
    edit = _workspace_edit(caps)
    return bool(edit and (edit.document_changes or edit.resource_operations))


def takes_snippets(caps: types.ClientCapabilities) -> bool:
    """Whether completion items may be snippets (VS Code and Neovim 0.11 say so)."""
    document = caps.text_document
    completion = document.completion if document else None
    item = completion.completion_item if completion else None
    return bool(item and item.snippet_support)


def shows_disabled_actions(caps: types.ClientCapabilities) -> bool:
    """Whether a code action may come disabled, with the reason (VS Code shows it greyed)."""
    document = caps.text_document
    action = document.code_action if document else None
    return bool(action and action.disabled_support)
