// Property filters typed in the search picker's query: `type:Movie`, `state:想看`,
// `rating:>=4`, `author:"Steph Ango"` become memlsp/search's `where` (KEY=VALUE, or the operator
// the value starts with), and the rest is the query. Pure, for the node:test unit tests.

/** The typed text split: the words to search for, and the filters in the server's form. */
export interface TypedQuery {
  query: string;
  where: string[];
}

// A key starts with a letter (so `10:30` and `C:\` stay words) and holds no space or quote; the
// value is quoted (spaces allowed) or runs to the next space, and never starts with `/` or `\`,
// so a URL or a path stays a word.
const FILTER = /(^|\s)([\p{L}_][\p{L}\p{N}_.-]*):(?:"([^"]*)"|'([^']*)'|(?![/\\])([^\s"']+))(?=\s|$)/gu;
const OPERATOR = /^(!=|<=|>=|=|<|>)/;

export function splitFilters(typed: string): TypedQuery {
  const where: string[] = [];
  const query = typed.replace(FILTER, (_match, before: string, key: string, ...values: (string | undefined)[]) => {
    const value = (values[0] ?? values[1] ?? values[2] ?? "").trim();
    if (!value) {
      return before;
    }
    where.push(OPERATOR.test(value) ? `${key}${value}` : `${key}=${value}`);
    return before;
  });
  return { query: query.replace(/\s+/g, " ").trim(), where };
}

/** What the picker says of the filters in force: `Filters: type=Movie, state=想看`. */
export function filtersTitle(where: string[]): string | undefined {
  return where.length ? `Filters: ${where.join(", ")}` : undefined;
}

/** memlsp/search's params for the typed text: `where` only when there are filters, so that a
 * server older than filters answers a plain query as before. */
export function searchParams(typed: TypedQuery, limit: number): { query: string; limit: number; where?: string[] } {
  return typed.where.length ? { query: typed.query, limit, where: typed.where } : { query: typed.query, limit };
}
