// memlsp: Show Graph: a webview beside the editor with the graph around the Markdown note last
// active (memlsp/graph), following it as the user moves between notes. A click on a node opens it
// in the editor's column. The page (html), its model (model), the messages it may send (messages),
// the depths it offers (bounds) and what is logged of its frames (frames) are pure modules; this
// one only talks to VS Code.

import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { debounce } from "../related";
import { isNote } from "../relatedView";
import type { GraphBoundsJson, GraphJson, Messages } from "../wire";
import { DEFAULT_DEPTHS, DepthRange, clampDepth, depthRange, sameRange } from "./bounds";
import { ShownGraphs } from "./frames";
import { graphHtml, newNonce } from "./html";
import { HostMessage, parseWebviewMessage } from "./messages";
import { graphViewModel } from "./model";
import { NO_VAULT_TEXT, failureText, graphParams, noServerText } from "./request";

export const GRAPH_VIEW_TYPE = "memlsp.graph";
const FOLLOW_DEBOUNCE_MS = 300;

type GraphAnswer = Messages["memlsp/graph"]; // null: the URI is no note of an open vault

const DEFAULT_DEPTH = 1;
const DEPTH_KEY = "memlsp.graph.depth";

export class GraphPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly loadSoon = debounce(() => void this.load(), FOLLOW_DEBOUNCE_MS);
  /** The note the graph is about, and the column its editor was in (where clicks open notes). */
  private note: vscode.Uri | undefined;
  private noteColumn: vscode.ViewColumn | undefined;
  private depth: number;
  private graph: GraphJson | undefined;
  private ids: ReadonlySet<string> = new Set();
  private last: HostMessage | undefined; // sent again when the page (re)loads
  private ready = false;
  private pending: vscode.CancellationTokenSource | undefined;
  private answerText = ""; // the answer shown, as JSON: the same answer again is not drawn again
  private readonly shown = new ShownGraphs();
  private depths: DepthRange = DEFAULT_DEPTHS;

  constructor(
    private readonly client: () => LanguageClient | undefined,
    private readonly extensionUri: vscode.Uri,
    private readonly state: vscode.Memento,
    private readonly log: (line: string) => void,
  ) {
    this.depth = clampDepth(state.get<unknown>(DEPTH_KEY), DEFAULT_DEPTH, this.depths);
    this.disposables.push(
      vscode.window.onDidChangeActiveTextEditor((editor) => this.follow(editor)),
      { dispose: () => this.loadSoon.cancel() },
    );
  }

  dispose(): void {
    this.pending?.cancel();
    this.panel?.dispose();
    this.disposables.forEach((disposable) => disposable.dispose());
  }

  /** The command: the graph of the note given (a URI from a menu) or of the active note. */
  show(argument?: unknown): void {
    const editor = vscode.window.activeTextEditor;
    const given = argument instanceof vscode.Uri ? argument : typeof argument === "string" ? vscode.Uri.parse(argument) : undefined;
    if (given) {
      this.note = given;
      this.noteColumn = editor?.document.uri.toString() === given.toString() ? editor.viewColumn : this.noteColumn;
    } else if (editor && isNote(editor.document)) {
      this.note = editor.document.uri;
      this.noteColumn = editor.viewColumn;
    }
    if (!this.note) {
      void vscode.window.showInformationMessage("memlsp: open a Markdown note to see its graph.");
      return;
    }
    if (this.panel) {
      this.panel.reveal(undefined, true); // where the user left it
    } else {
      this.panel = this.createPanel();
    }
    void this.load();
  }

  /** The vault changed, or the server restarted: draw the graph again once a burst is over. */
  refresh(): void {
    if (this.panel) {
      this.loadSoon();
    }
  }

  /** Meaning was missing (vectors not made yet): worth asking again now that some are. */
  refreshIfWaiting(): void {
    if (this.panel && this.graph?.warning) {
      this.loadSoon();
    }
  }

  /** The server (re)started and announced its bounds, or none: the toolbar offers the depths
   * within them, and a page already shown is loaded again with those choices. */
  setBounds(bounds: GraphBoundsJson | undefined): void {
    const depths = depthRange(bounds);
    if (sameRange(depths, this.depths)) {
      return;
    }
    this.depths = depths;
    this.depth = clampDepth(this.state.get<unknown>(DEPTH_KEY), DEFAULT_DEPTH, depths);
    if (this.panel) {
      this.ready = false; // the new page says when it is
      this.panel.webview.html = this.page(this.panel.webview);
    }
  }

  private page(webview: vscode.Webview): string {
    const media = vscode.Uri.joinPath(this.extensionUri, "media");
    return graphHtml({
      nonce: newNonce(),
      cspSource: webview.cspSource,
      library: webview.asWebviewUri(vscode.Uri.joinPath(media, "vendor", "force-graph.min.js")).toString(),
      script: webview.asWebviewUri(vscode.Uri.joinPath(media, "graph", "webview", "graphView.js")).toString(),
      style: webview.asWebviewUri(vscode.Uri.joinPath(media, "graph.css")).toString(),
      depths: this.depths,
    });
  }

  private createPanel(): vscode.WebviewPanel {
    const media = vscode.Uri.joinPath(this.extensionUri, "media");
    const panel = vscode.window.createWebviewPanel(
      GRAPH_VIEW_TYPE,
      "Graph",
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, localResourceRoots: [media], enableFindWidget: false },
    );
    const webview = panel.webview;
    webview.html = this.page(webview);
    this.ready = false;
    panel.onDidDispose(() => {
      this.panel = undefined;
      this.ready = false;
      this.pending?.cancel();
      this.loadSoon.cancel();
    }, undefined, this.disposables);
    webview.onDidReceiveMessage((raw: unknown) => void this.onMessage(raw), undefined, this.disposables);
    return panel;
  }

  private follow(editor: vscode.TextEditor | undefined): void {
    // A webview, the output or settings keep the graph on the last note.
    if (!editor || !isNote(editor.document)) {
      return;
    }
    this.noteColumn = editor.viewColumn;
    if (editor.document.uri.toString() === this.note?.toString()) {
      return;
    }
    this.note = editor.document.uri;
    this.refresh();
  }

  private post(message: HostMessage): void {
    if (message.type !== "loading") {
      this.last = message;
    }
    if (this.ready) {
      void this.panel?.webview.postMessage(message);
    }
  }

  private async load(): Promise<void> {
    const note = this.note;
    const panel = this.panel;
    if (!panel || !note) {
      return;
    }
    panel.title = `Graph: ${vscode.workspace.asRelativePath(note, false)}`;
    const lsp = this.client();
    if (!lsp?.isRunning()) {
      this.showText(noServerText(lsp !== undefined));
      return;
    }
    this.pending?.cancel();
    const source = new vscode.CancellationTokenSource();
    this.pending = source;
    this.post({ type: "loading", depth: this.depth });
    const started = Date.now();
    let answer: GraphAnswer;
    try {
      answer = await lsp.sendRequest<GraphAnswer>("memlsp/graph", graphParams(note.toString(), this.depth), source.token);
    } catch (error) {
      if (source.token.isCancellationRequested) {
        return;
      }
      this.showText(failureText(error));
      return;
    }
    if (source.token.isCancellationRequested || note !== this.note) {
      return; // a newer question is on its way
    }
    const answeredIn = Date.now() - started;
    if (!answer) {
      this.showText(NO_VAULT_TEXT);
      return;
    }
    // A refresh after a change elsewhere in the vault often brings the same graph: the page keeps
    // its layout (and the user's zoom) then.
    const text = JSON.stringify(answer);
    if (text === this.answerText && this.last?.type === "graph") {
      return;
    }
    this.answerText = text;
    this.graph = answer;
    this.ids = new Set(answer.nodes.map((node) => node.id));
    const seq = this.shown.add({ note: answer.note, depth: answer.depth, askedAt: started, answeredIn });
    this.post({ type: "graph", model: graphViewModel(answer), depth: this.depth, seq });
  }

  private showText(text: string): void {
    this.graph = undefined;
    this.answerText = "";
    this.ids = new Set();
    this.post({ type: "message", text, depth: this.depth });
  }

  private async onMessage(raw: unknown): Promise<void> {
    const message = parseWebviewMessage(raw, this.ids, this.depths);
    if (!message) {
      this.log(`graph view: ignored a message it may not send: ${JSON.stringify(raw)?.slice(0, 200)}`);
      return;
    }
    switch (message.type) {
      case "ready":
        this.ready = true;
        if (this.last) {
          this.post(this.last);
        }
        break;
      case "depth":
        this.depth = message.n;
        void this.state.update(DEPTH_KEY, message.n);
        await this.load();
        break;
      case "open":
        await this.open(message.id);
        break;
      case "frame": {
        const line = this.shown.frame(message, Date.now());
        if (line) {
          this.log(line);
        }
        break;
      }
      case "settled":
        this.log(this.shown.settled(message));
        break;
    }
  }

  /** A clicked node: a note opens in the text editor, another file as VS Code opens it. */
  private async open(id: string): Promise<void> {
    const node = this.graph?.nodes.find((candidate) => candidate.id === id);
    if (!node?.uri || node.kind === "unresolved") {
      return;
    }
    const uri = vscode.Uri.parse(node.uri);
    const column = this.noteColumn && this.noteColumn !== this.panel?.viewColumn ? this.noteColumn : vscode.ViewColumn.One;
    if (node.kind === "note") {
      await vscode.window.showTextDocument(uri, { viewColumn: column, preserveFocus: false });
    } else {
      await vscode.commands.executeCommand("vscode.open", uri, { viewColumn: column });
    }
  }
}
