// When to ask memlsp/status for the full report, and each vault's latest one. The plain answer is
// asked every 2 s while something moves; the report costs the server more (it measures the index
// on disk, groups the files that are not notes), and a tooltip needs no fresher numbers than half
// a minute. So: with the first answer, after memlsp/indexed, when a vault becomes ready, and
// otherwise at most every 30 s. Pure (the time is passed in), for the unit tests.

import { isBusy } from "./status";
import type { StatusAnswerJson, StatusReportJson } from "./wire";

export const REPORT_EVERY_MS = 30_000;

export class StatusReports {
  private askedAt: number | undefined;
  private forced = true;
  private readonly busy = new Map<string, boolean>();
  private readonly reports = new Map<string, StatusReportJson>();

  /** The next answer asks for the report (the vault was indexed: most of it changed). */
  force(): void {
    this.forced = true;
  }

  /** Whether the answer asked now should carry the report. */
  due(now: number): boolean {
    return this.forced || this.askedAt === undefined || now - this.askedAt >= REPORT_EVERY_MS;
  }

  /** Takes an answer in (`asked`: with the report). True when a vault became ready in an answer
   * without the report: ask again at once, with it (`due` says so). */
  take(status: StatusAnswerJson, asked: boolean, now: number): boolean {
    const roots = new Set(status.vaults.map((vault) => vault.root));
    for (const root of [...this.reports.keys(), ...this.busy.keys()]) {
      if (!roots.has(root)) {
        this.reports.delete(root);
        this.busy.delete(root);
      }
    }
    if (asked) {
      this.askedAt = now;
      this.forced = false;
      for (const vault of status.vaults) {
        // An older server answers without it: its vault keeps the plain tooltip.
        if (vault.report) {
          this.reports.set(vault.root, vault.report);
        } else {
          this.reports.delete(vault.root);
        }
      }
    }
    let becameReady = false;
    for (const vault of status.vaults) {
      const busy = isBusy(vault);
      becameReady ||= this.busy.get(vault.root) === true && !busy;
      this.busy.set(vault.root, busy);
    }
    if (becameReady && !asked) {
      this.forced = true;
      return true;
    }
    return false;
  }

  /** The vault's latest report, if its server sent one. */
  get(root: string): StatusReportJson | undefined {
    return this.reports.get(root);
  }
}
