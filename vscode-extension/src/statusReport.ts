// The status bar item's tooltip from memlsp/status's `report` (asked with `{"report": true}`, only
// now and then: reportSchedule.ts): a few lines of Markdown a person reads at a glance. The counts
// that the plain answer carries too (notes, sections, vectors made) are taken from the vault's
// latest plain answer, the rest from the report, which may be up to half a minute older.
// Pure, for the unit tests.

import { count, displayPath, duration, percent, plural, size } from "./format";
import type { NotNotesJson, ProblemGroupJson, ReportVectorsJson, StatusReportJson, VaultStatusJson } from "./wire";

/** Text from the server or the vault (a folder name, a reason) shown as itself, not as Markdown. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]<>#|~!]/g, "\\$&").replace(/\s+/g, " ");
}

/** The server's names of reasons and kinds ("too_large") as words. */
function words(name: string): string {
  return name.replace(/[_-]+/g, " ").trim();
}

/** "12 too large, 3 binary": a group by reason or kind, as counts. */
function groups(entries: readonly (NotNotesJson | ProblemGroupJson)[]): string {
  return entries
    .filter((entry) => entry.count > 0)
    .map((entry) => `${count(entry.count)} ${escapeMarkdown(words("reason" in entry ? entry.reason : entry.kind))}`)
    .join(", ");
}

/** The semantic side: off and why, unavailable and why, or how far it is and how long it takes. */
export function vectorsLine(vectors: ReportVectorsJson, live: VaultStatusJson["vectors"]): string {
  const embedder = vectors.embedder ? ` (${escapeMarkdown(vectors.embedder)})` : "";
  if (vectors.state === "off") {
    const why = vectors.off_reason ? `: ${escapeMarkdown(vectors.off_reason)}` : "";
    return `Vectors: off, keyword search only${why}`;
  }
  if (vectors.state === "unavailable") {
    const why = vectors.problem ? `: ${escapeMarkdown(vectors.problem)}` : "";
    return `Vectors${embedder}: unavailable, keyword search only${why}`;
  }
  // The plain answer's counts are the newer ones when it has them.
  const embedded = live?.embedded ?? vectors.embedded;
  const pending = live?.pending ?? vectors.pending;
  const failed = vectors.failed > 0 ? `; ${plural(vectors.failed, "section", "sections")} failed` : "";
  if (pending <= 0) {
    return `Vectors${embedder}: all ${plural(embedded, "section", "sections")}${failed}`;
  }
  const starting = vectors.state === "connecting" ? ", starting" : "";
  // The report's time left is as old as the report: from the newer count at the measured rate.
  const seconds = live && vectors.rate_per_second ? pending / vectors.rate_per_second : vectors.eta_seconds;
  const eta = seconds !== null && seconds >= 0 ? `, ${duration(seconds)} left` : "";
  return (
    `Vectors${embedder}: ${percent(embedded, pending)}%, ${count(embedded)} of ` +
    `${plural(embedded + pending, "section", "sections")}${starting}${eta}${failed}`
  );
}

/** The tooltip: `headline` (the vault's name and summary, already plain words), then one line each. */
export function reportTooltip(headline: string, vault: VaultStatusJson, report: StatusReportJson): string {
  const lines = [
    `Folder: ${escapeMarkdown(displayPath(vault.root))}`,
    `${plural(vault.notes, "note", "notes")}, ${plural(vault.chunks, "section", "sections")}`,
  ];
  const links = report.links;
  if (links) {
    const troubles = [
      links.unresolved ? `${count(links.unresolved)} unresolved` : "",
      links.ambiguous ? `${count(links.ambiguous)} ambiguous` : "",
    ].filter(Boolean);
    lines.push(`${plural(links.total, "link", "links")}${troubles.length ? ` (${troubles.join(", ")})` : ""}`);
  }
  if (report.vectors) {
    lines.push(vectorsLine(report.vectors, vault.vectors));
  }
  const notNotes = groups(report.not_notes ?? []);
  if (notNotes) {
    lines.push(`Not notes: ${notNotes}`);
  }
  const problems = groups(report.problems ?? []);
  if (problems) {
    lines.push(`Problems: ${problems}`);
  }
  if (report.unseen_changes?.count) {
    lines.push(`Changed on disk, not indexed yet: ${plural(report.unseen_changes.count, "file", "files")}`);
  }
  if (report.cache) {
    lines.push(`Index: ${size(report.cache.bytes)}`);
  }
  if (vault.read_only) {
    lines.push("Read-only: another memlsp process keeps this vault's index");
  }
  return [`**${escapeMarkdown(headline)}**`, "", ...lines.map((line) => `- ${line}`), "", "Click for details."].join("\n");
}
