// The memlsp items in the status bar: one per vault, the first always there (starting, errors, the
// only vault), and the timer that asks memlsp/status again while something is moving.

import * as vscode from "vscode";
import type { StatusItemView } from "../status";

const STATUS_POLL_MS = 2000;

function newStatusItem(index: number): vscode.StatusBarItem {
  // Left of the other items in the order of the vaults.
  const item = vscode.window.createStatusBarItem(`memlsp.status.${index}`, vscode.StatusBarAlignment.Left, 10 - index / 100);
  item.name = "memlsp";
  item.command = "memlsp.showStatus";
  return item;
}

/** The server's words in it are escaped (statusReport.ts); links and commands stay inert. */
function markdownTooltip(markdown: string): vscode.MarkdownString {
  const tooltip = new vscode.MarkdownString(markdown);
  tooltip.isTrusted = false;
  return tooltip;
}

export class StatusBar implements vscode.Disposable {
  private readonly items: vscode.StatusBarItem[] = [newStatusItem(0)];
  private pollTimer: NodeJS.Timeout | undefined;

  /** One item per view: the first item is reused, further ones made or disposed. */
  show(views: readonly StatusItemView[]): void {
    while (this.items.length < views.length) {
      this.items.push(newStatusItem(this.items.length));
    }
    for (const extra of this.items.splice(Math.max(views.length, 1))) {
      extra.dispose();
    }
    views.forEach((view, index) => {
      const item = this.items[index];
      if (item) {
        item.text = view.text;
        item.tooltip = view.markdown === undefined ? view.tooltip : markdownTooltip(view.markdown);
        item.show();
      }
    });
  }

  /** `refresh` again in a moment (the last one asked for replaces any earlier). */
  pollSoon(refresh: () => void): void {
    this.stopPolling();
    this.pollTimer = setTimeout(refresh, STATUS_POLL_MS);
  }

  stopPolling(): void {
    if (this.pollTimer) {
      clearTimeout(this.pollTimer);
      this.pollTimer = undefined;
    }
  }

  dispose(): void {
    this.stopPolling();
    this.items.forEach((item) => item.dispose());
  }
}
