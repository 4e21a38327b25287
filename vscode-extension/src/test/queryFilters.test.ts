import assert from "node:assert/strict";
import { test } from "node:test";
import { filtersTitle, searchParams, splitFilters } from "../queryFilters";

test("key:value tokens become filters and the rest is the query", () => {
  assert.deepEqual(splitFilters("type:Movie 科幻 state:想看"), {
    query: "科幻",
    where: ["type=Movie", "state=想看"],
  });
  assert.deepEqual(splitFilters("type:Movie"), { query: "", where: ["type=Movie"] });
  assert.deepEqual(splitFilters("how bm25 ranks"), { query: "how bm25 ranks", where: [] });
});

test("a quoted value keeps its spaces; an operator in the value is the filter's", () => {
  assert.deepEqual(splitFilters('author:"Steph Ango" notes rating:>=4 status:!=done'), {
    query: "notes",
    where: ["author=Steph Ango", "rating>=4", "status!=done"],
  });
  assert.deepEqual(splitFilters("categories:'[[Books]]'").where, ["categories=[[Books]]"]);
  assert.deepEqual(splitFilters("状态:想看 电影").where, ["状态=想看"]);
});

test("times, drive letters, URLs and a colon at a word's end stay words", () => {
  for (const text of ["meet at 10:30", "see https://example.com", "note: remember", "C:\\notes"]) {
    assert.deepEqual(splitFilters(text), { query: text.replace(/\s+/g, " "), where: [] }, text);
  }
});

test("the picker names the filters in force", () => {
  assert.equal(filtersTitle(["type=Movie", "state=想看"]), "Filters: type=Movie, state=想看");
  assert.equal(filtersTitle([]), undefined);
});

test("where goes with the query only when there are filters", () => {
  assert.deepEqual(searchParams(splitFilters("bm25"), 50), { query: "bm25", limit: 50 });
  assert.deepEqual(searchParams(splitFilters("type:Movie"), 50), { query: "", limit: 50, where: ["type=Movie"] });
});
