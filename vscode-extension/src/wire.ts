// The JSON of memlsp's own messages, as the server sends it (memlsp/wire/, where each shape has
// its builder). Names and fields are the server's; tests/editors/test_wire_schema.py fails when the two
// files differ, so change both together. No `vscode` import: the unit tests use these too.

export type VaultState = "opening" | "indexing" | "ready" | "failed" | "stopped";
export type VectorState = "off" | "connecting" | "ready" | "unavailable";
export type ProcessKind = "language server" | "memlsp serve" | "memlsp mcp" | "none";
export type SettingSource = "default" | "user config" | "vault" | "editor" | "flag";
export type GraphDirection = "both" | "out" | "in";
export type GraphNodeKind = "note" | "file" | "unresolved";
// Why a note asked about is or is not in a search's answer (`explain`).
export type Verdict = "shown" | "not_a_note" | "not_indexed_yet" | "filtered" | "no_evidence" | "below_floor" | "beyond_limit" | "cut_by_budget" | "merged" | "linked_only";
export type GraphEdgeKind = "link" | "meaning"; // links as written; a note's closest by meaning
export type LinkState = "resolved" | "ambiguous" | "unresolved" | "outside";

/** The result (or params, for a notification) of each custom message. */
export interface Messages {
  "memlsp/search": VaultSearchAnswerJson;
  "memlsp/links": LinksAnswerJson | null; // null: the note is in no open vault
  "memlsp/related": RelatedAnswerJson | null; // null: the note is in no open vault
  "memlsp/mentions": MentionsAnswerJson | null; // null: the note is in no open vault
  "memlsp/graph": GraphJson | null; // null: the URI is no note of an open vault
  "memlsp/reindex": ReindexAnswerJson;
  "memlsp/status": StatusAnswerJson;
  "memlsp/indexed": IndexedJson;
  "memlsp/vectors": VectorsNoticeJson;
  "memlsp/changed": ChangedJson;
}

// -- memlsp/search -------------------------------------------------------------------------------

export interface NeighbourJson {
  path: string;
  name: string;
  description: string;
  anchors: string[];
  source: string; // always "link"
}

export interface OtherSectionJson {
  start_line: number;
  end_line: number;
  heading: string;
  breadcrumb: string[];
  score: number;
}

export interface SearchResultJson {
  path: string;
  start_line: number; // 1-based, inclusive
  end_line: number; // 1-based, inclusive
  title: string;
  heading: string; // "" for the text before a note's first heading
  breadcrumb: string[];
  date: string | null;
  score: number;
  keyword_score: number | null;
  keyword_rank: number | null;
  vector_score: number | null;
  vector_rank: number | null;
  matched_terms: string[];
  source: string;
  chunk_id: string;
  text: string;
  outlinks: NeighbourJson[];
  inlinks: NeighbourJson[];
  other_sections: OtherSectionJson[];
  /** How many searches shown to someone held this note, this one included; absent from older servers. */
  recall_count?: number;
  /** When it was last recalled, ISO-8601 UTC with "Z" (null: never); absent from older servers. */
  last_recalled_at?: string | null;
}

/** A result with where its note is: the note's URI and its vault's. */
export interface VaultSearchResultJson extends SearchResultJson {
  uri: string;
  root: string;
}

/** A result the token budget left out, after those shown, in rank order. */
export interface DroppedJson {
  path: string;
  heading: string; // the section's headings as a link's anchor writes them ("A#B"); "" for the top
  score: number;
  tokens: number; // what it would have cost, by the measure of the budget
}

/** A left-out result with where its note is. */
export interface VaultDroppedJson extends DroppedJson {
  uri: string;
  root: string;
}

/** What the keyword side found in an explained note. */
export interface KeywordEvidenceJson {
  rank: number | null; // its best section's rank among the side's candidates; null past them
  score: number | null; // null: no query term in the note
  matched_terms: string[];
}

/** What the vector side found of an explained note. */
export interface VectorEvidenceJson {
  rank: number | null;
  similarity: number | null; // null: not embedded yet
  embedded: boolean;
}

/** Why a note asked about (`explain`) is or is not in the answer; the facts come as they apply. */
export interface ExplainJson {
  note: string;
  path: string | null;
  verdict: Verdict;
  sentence: string; // the verdict in plain words
  keyword: KeywordEvidenceJson | null;
  vector: VectorEvidenceJson | null;
  rank?: number;
  score?: number;
  heading?: string;
  filter?: string;
  floor?: string;
  floor_value?: number;
  strength?: number;
  limit?: number;
  last_score?: number | null;
  candidates?: number;
  tokens?: number;
  tokens_left?: number;
  linked_from?: string;
  linked_rank?: number;
  reason?: string;
  terms?: string;
}

/** An explained note with where it is, when it names a vault's file. */
export interface VaultExplainJson extends ExplainJson {
  uri?: string;
  root?: string;
}

export interface SearchCountsJson {
  keyword: number;
  vector: number;
  hybrid: boolean;
}

export interface VaultSearchAnswerJson {
  query: string;
  mode: string;
  fusion?: string; // "evidence" or "rrf" (", "-joined when vaults differ); older servers omit it
  warnings: string[];
  strength: number;
  counts: SearchCountsJson;
  results: VaultSearchResultJson[];
  // `results` then `dropped`: the search without a budget, in order. Older servers omit both.
  dropped?: VaultDroppedJson[];
  budget_used?: number | null; // tokens of the results shown; null without a budget
  explain?: VaultExplainJson[]; // one per note asked about; older servers omit it
}

// -- memlsp/links --------------------------------------------------------------------------------

export interface PositionJson {
  line: number; // 0-based
  character: number; // in the negotiated encoding
}

export interface RangeJson {
  start: PositionJson;
  end: PositionJson;
}

export interface LinkJson {
  source: string;
  target: string;
  anchor: string; // "" for none
  kind: string; // "wiki" or "markdown"
  embed: boolean;
  status: string; // "resolved", "ambiguous", "unresolved" or "outside"
  targets: string[];
  candidates: string[];
}

/** A link with where it is written: the linking note's URI and the link's range. */
export interface VaultLinkJson extends LinkJson {
  uri: string;
  range: RangeJson;
}

export interface LinksAnswerJson {
  uri: string;
  path: string;
  outlinks: VaultLinkJson[];
  inlinks: VaultLinkJson[];
  unresolved: VaultLinkJson[];
  ambiguous: VaultLinkJson[];
}

// -- memlsp/related ------------------------------------------------------------------------------

/** The two sections, one of each note, closest in meaning. */
export interface SectionPairJson {
  mine: string[]; // breadcrumb of the asking note's section
  mine_line: number; // 1-based
  theirs: string[];
  theirs_line: number;
  similarity: number;
}

export interface RelatedNoteJson {
  path: string;
  title: string;
  score: number; // 0..1
  linked: boolean; // the two notes already link, one to the other
  reason: string;
  closest: SectionPairJson;
  shared_tags: string[];
}

/** A note close in meaning to the one asked about. */
export interface RelatedNoteAnswerJson extends RelatedNoteJson {
  uri: string;
  link: string; // the text inside [[…]] that leads there from the note asked about (the shortest)
}

export interface RelatedAnswerJson {
  note: string; // the asking note's URI
  path: string;
  results: RelatedNoteAnswerJson[];
  warning?: string; // why there are none, or fewer than there could be (no vectors yet)
}

// -- memlsp/mentions -----------------------------------------------------------------------------

/** A place where the note's name (or an alias) is written as plain text: a link that could be. */
export interface MentionAnswerJson {
  uri: string; // the mentioning note
  path: string;
  range: RangeJson;
  text: string; // as written
  targets: string[]; // vault paths of the notes with that name; more than one: a shared name
}

export interface MentionsAnswerJson {
  note: string; // the note's URI
  path: string;
  mentions: MentionAnswerJson[];
  left_out: number; // mentions beyond the ones listed
  warning?: string; // e.g. the note has no name long enough to look for
}

// -- memlsp graph --json and memlsp/graph -------------------------------------------------------

export interface GraphNodeJson {
  id: string; // a vault file's path, or an unresolved link's target as written
  kind: GraphNodeKind;
  title: string; // a note's title, another file's name, an unresolved target's text
  distance: number | null; // links from the note asked about; null: reached only by meaning
  inlinks: number; // notes in the whole vault that link to it
  description: string; // a note's description, "" for other nodes
  tags: string[]; // a note's tags without '#', each once, in the note's order
  uri?: string; // memlsp/graph only, for "note" and "file" nodes
}

export interface GraphEdgeJson {
  source: string; // node ids; a link always as written, source -> target; meaning from the note
  target: string;
  kind: GraphEdgeKind;
  count: number; // links written in source that lead to target; 0 for meaning
  line: number | null; // 1-based line of the first of them in source; null for meaning
  similarity: number | null; // meaning: the closest pair of sections' similarity, 0..1
}

export interface GraphLeftOutJson {
  nodes: number; // what the caps left out of the answer
  edges: number;
}

/** The graph's bounds, announced in the initialize result as
 * `capabilities.experimental.memlspGraph` (absent from a server from before it). */
export interface GraphBoundsJson {
  min_depth: number; // the depths a graph may be asked for, both ends included
  max_depth: number;
  max_per_node: number; // neighbours taken from one node in each direction
  max_nodes: number; // nodes in one answer
}

/** The notes within `depth` links of a note, the links between them, its closest by meaning. */
export interface GraphJson {
  note: string;
  depth: number;
  direction: GraphDirection;
  nodes: GraphNodeJson[]; // by distance, then id; those reached only by meaning last
  edges: GraphEdgeJson[]; // by source, then target, then kind
  left_out: GraphLeftOutJson;
  cut: string | null; // what the caps left out and how to see more; null when nothing
  warning: string | null; // why there are no meaning edges, when some were asked for
}

// -- `memlsp read --json` and `memlsp recent --json`, read by other programs ---------------------

/** A link written in the lines read, and where it goes. */
export interface ReadLinkJson {
  line: number; // 1-based
  target: string; // as written ("" for a link inside the note)
  anchor: string | null; // heading path (A#B) or ^block
  status: LinkState;
  paths: string[]; // where it goes; [] when nowhere
}

export interface ReadHeadingJson {
  level: number;
  text: string; // as written
  line: number; // 1-based
}

/** A note, one section of it or a range of its lines, as it is now. */
export interface ReadJson {
  path: string;
  title: string;
  heading: string | null; // the section's heading as written, when one was asked for
  start_line: number; // 1-based, inclusive: the lines in `text`
  end_line: number;
  line_count: number; // the whole note's
  frontmatter: Record<string, unknown>; // parsed YAML, dates as ISO strings; {} when none
  text: string; // exactly the lines, joined by "\n"
  links: ReadLinkJson[]; // written in these lines, in order
  headings: ReadHeadingJson[]; // all of the note's
  cut: string | null; // which lines the token budget left out, and how to read on
  hash?: string; // sha256 of the note's whole text as read; servers before it lack it
}

export interface RecentNoteJson {
  path: string;
  title: string;
  modified: string; // ISO-8601 UTC with "Z"
  unsaved: boolean; // an editor's buffer holds text its file does not
  description: string;
  recall_count: number; // how many searches showed it
  last_recalled_at: string | null; // ISO-8601 UTC with "Z"; null: never
}

/** The notes changed lately, newest first (by "recalled": recalled lately, most often first). */
export interface RecentJson {
  days: number;
  since: string; // ISO-8601 UTC with "Z"
  notes: RecentNoteJson[];
  more: number; // in the window, beyond the limit
  by: string; // "changed" or "recalled"
}

// -- memlsp/status, memlsp/reindex and the notifications -----------------------------------------

export interface VectorsJson {
  state: VectorState;
  embedder: string;
  embedded: number;
  pending: number;
  problem: string; // "" when there is none
}

export interface VaultStatusJson {
  root: string;
  /** The vault folder's name; absent from older servers. */
  name?: string;
  /** One line in plain words ("Indexing 2,000 of 3,177 notes"); absent from older servers. */
  summary?: string;
  /** Opening, indexing or embedding is moving; absent from older servers. */
  busy?: boolean;
  state: VaultState;
  notes: number;
  chunks: number;
  revision: number;
  indexed_files: number;
  files_to_index: number;
  pending_changes: number;
  message: string;
  /** Another process keeps the index; absent from older servers. */
  read_only?: boolean;
  vectors: VectorsJson | null;
  /** How many links have each kind of problem; absent from older servers. */
  problems?: ProblemsJson | null;
  /** The full status report, when `memlsp/status` was asked with `"report": true`. */
  report?: StatusReportJson;
}

/** `memlsp status --json`, the MCP tool `status`, and `memlsp/status` with `report`. */
export interface StatusReportJson {
  root: string;
  name: string;
  summary: string;
  state: VaultState;
  /** The answering process does not write the index. */
  read_only: boolean;
  notes: number;
  chunks: number;
  links: LinkCountsJson;
  revision: number;
  /** When the index last changed, ISO 8601 UTC. */
  last_changed: string | null;
  vectors: ReportVectorsJson;
  not_notes: NotNotesJson[];
  problems: ProblemGroupJson[];
  unseen_changes: UnseenChangesJson;
  cache: CacheJson;
  process: ProcessJson;
  settings: Record<string, SettingJson>;
  messages: string[];
  /** How often searches recalled the vault's notes; absent from older servers. */
  recall?: RecallTotalsJson;
}

export interface LinkCountsJson {
  total: number;
  unresolved: number;
  ambiguous: number;
}

export interface ReportVectorsJson {
  state: VectorState;
  embedder: string;
  embedded: number;
  pending: number;
  failed: number;
  running: boolean;
  rate_per_second: number | null;
  eta_seconds: number | null;
  problem: string;
  off_reason: string | null;
  models: ModelJson[];
}

export interface ModelJson {
  name: string;
  embedded: number;
}

/** Files that are not notes, for one reason ("ignored", "too_large", "not_markdown", ...). */
export interface NotNotesJson {
  reason: string;
  detail: string;
  count: number;
  /** The first ten. */
  paths: string[];
  rule: string | null;
  source: string | null;
}

/** One kind of problem ("invalid_frontmatter", "unresolved_link", ...). */
export interface ProblemGroupJson {
  kind: string;
  count: number;
  paths: string[];
}

export interface UnseenChangesJson {
  count: number;
  paths: string[];
}

export interface RecallTotalsJson {
  notes: number; // recalled at least once (renamed or deleted ones included)
  recalls: number;
  last: string | null; // ISO 8601 UTC; null: never
}

export interface CacheJson {
  path: string;
  bytes: number;
}

export interface ProcessJson {
  kind: ProcessKind;
  pid: number | null;
  /** ISO 8601 UTC. */
  since: string | null;
}

export interface SettingJson {
  value: unknown;
  source: SettingSource;
}

export interface ProblemsJson {
  unresolved: number;
  missing_anchors: number;
  ambiguous: number;
  outside: number;
}

export interface StatusAnswerJson {
  version: string;
  vaults: VaultStatusJson[];
}

export interface ReindexAnswerJson {
  vaults: string[];
}

export interface IndexedJson {
  root: string;
  notes: number;
  chunks: number;
  links: number;
  unresolved: number;
  ambiguous: number;
  skipped_count: number;
  seconds: number;
}

export interface VectorsNoticeJson {
  root: string;
  vectors: VectorsJson;
}

export interface ChangedJson {
  root: string;
  revision: number;
}
