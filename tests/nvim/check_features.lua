-- A real Neovim 0.11 client against memlsp, headless.
--
--   nvim --headless -u NONE -i NONE -n -l tests/nvim/check_features.lua VAULT CACHE PYTHON
--
-- VAULT is a scratch copy of fixtures/vault to which tests/editors/test_neovim.py adds `inbox/emoji-links.md`
-- (Chinese and emoji before its links; the fixture has no such line). The script starts
-- `PYTHON -m memlsp --stdio` on that note, waits for `initialize` and for the server's
-- `memlsp/indexed` notification, then checks definition, references, hover, workspace/symbol and
-- completion (an item applied with Neovim's own function, then followed), rename (Neovim's own,
-- the files renamed and written by Neovim)
-- through Neovim's own LSP client, whose columns are UTF-8 bytes. Each check prints one JSON line
-- {"check": ..., "ok": true|false, ...} on stdout; the last line is {"check": "done", ...}. Every
-- wait is bounded; the exit code is 0 when every check passed, 1 otherwise.

local VAULT, CACHE, PYTHON = arg[1], arg[2], arg[3]
local NOTE = "inbox/emoji-links.md"
local START_MS = 20000 -- server start and `initialize`
local INDEX_MS = 60000 -- indexing the fixture vault
local REQUEST_MS = 10000 -- one request

local harness = dofile(vim.fs.joinpath(vim.fs.dirname(arg[0]), "harness.lua"))
local check, finish, fatal = harness.check, harness.finish, harness.fatal
local lsp = dofile(vim.fs.joinpath(vim.fs.dirname(arg[0]), "lsp.lua"))
local as_list = lsp.as_list
local client = nil

if not (VAULT and CACHE and PYTHON) then
  io.stderr:write("usage: nvim --headless -u NONE -i NONE -n -l check_features.lua VAULT CACHE PYTHON\n")
  os.exit(2)
end
VAULT = vim.fs.normalize(vim.fn.fnamemodify(VAULT, ":p")):gsub("/$", "")

-- -- where things are ----------------------------------------------------------------------------

local function read_lines(rel)
  local path = VAULT .. "/" .. rel
  if vim.fn.filereadable(path) ~= 1 then
    fatal("missing note " .. path)
  end
  return vim.fn.readfile(path)
end

--- The first line of a note containing `needle`: 0-based line, UTF-8 byte and UTF-16 columns.
local function locate(rel, needle)
  for index, text in ipairs(read_lines(rel)) do
    local start = text:find(needle, 1, true)
    if start then
      local prefix = text:sub(1, start - 1)
      return { rel = rel, line = index - 1, byte = #prefix, utf16 = vim.str_utfindex(prefix, "utf-16") }
    end
  end
  fatal(("%q not found in %s"):format(needle, rel))
end

local function rel_of(uri)
  return lsp.relative(VAULT, vim.uri_to_fname(uri))
end

local function range_of(location)
  return location.range or location.targetSelectionRange
end

local function brief(location)
  local start = range_of(location).start
  return ("%s:%d:%d"):format(rel_of(location.uri or location.targetUri), start.line, start.character)
end

-- -- requests ------------------------------------------------------------------------------------

--- memlsp's answer to one request, or nil and a message.
local function request(buf, method, params)
  local answers, err = vim.lsp.buf_request_sync(buf, method, params, REQUEST_MS)
  if answers == nil then
    return nil, ("%s: %s"):format(method, err or "timed out")
  end
  local answer = answers[client.id]
  if answer == nil then
    return nil, method .. ": no answer from memlsp"
  end
  if answer.err then
    return nil, ("%s: error %s"):format(method, vim.inspect(answer.err))
  end
  return answer.result
end

--- Position params a few bytes inside the link at `spot` (in the buffer `buf`).
local function at(buf, spot)
  return {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = spot.line, character = spot.byte + 3 },
  }
end

-- -- start the server ----------------------------------------------------------------------------

local indexed = nil
local vectors = nil

local function start()
  read_lines(NOTE) -- fails early on a wrong VAULT
  vim.cmd("filetype on")
  vim.cmd.edit(vim.fn.fnameescape(VAULT .. "/" .. NOTE))
  local buf = vim.api.nvim_get_current_buf()
  local id = vim.lsp.start(lsp.memlsp(PYTHON, VAULT, CACHE, {
    ["memlsp/indexed"] = function(_, params)
      indexed = params
    end,
    ["memlsp/vectors"] = function(_, params)
      vectors = params.vectors
    end,
  }), { bufnr = buf })
  if id == nil then
    fatal("vim.lsp.start did not start a client")
  end
  client = vim.lsp.get_client_by_id(id)
  harness.client = client
  if not lsp.initialized(client, START_MS) then
    fatal(("memlsp did not answer `initialize` in %d ms (is memlsp importable by %s?)"):format(START_MS, PYTHON))
  end
  check("initialized", true, { server = client.server_info and client.server_info.name })
  if lsp.await(client, INDEX_MS, function()
    return indexed
  end) == nil then
    fatal(("no memlsp/indexed notification in %d ms"):format(INDEX_MS))
  end
  check("indexed", (indexed.notes or 0) >= 20, { notes = indexed.notes, links = indexed.links })
  return buf
end

-- -- the checks ----------------------------------------------------------------------------------

local function check_encoding()
  check("offset_encoding", client.offset_encoding == "utf-8", { value = client.offset_encoding })
end

--- Definition on a link lands on the line of `target_needle` in `target`.
local function check_definition(name, buf, link, target, target_needle)
  local spot = locate(NOTE, link)
  local want = locate(target, target_needle).line
  local result, err = request(buf, "textDocument/definition", at(buf, spot))
  local locations = as_list(result)
  local first = locations[1]
  local ok = #locations == 1
    and rel_of(first.uri or first.targetUri) == target
    and range_of(first).start.line == want
  check(name, ok, {
    link = link,
    line = spot.line,
    byte_column = spot.byte + 3,
    utf16_column = spot.utf16 + 3,
    want = ("%s:%d"):format(target, want),
    got = vim.tbl_map(brief, locations),
    error = err,
  })
end

--- References on `[[hybrid-search]]`: links from other notes, each at its own UTF-8 column.
local function check_references(buf)
  local spot = locate(NOTE, "[[hybrid-search]]")
  local params = at(buf, spot)
  params.context = { includeDeclaration = false }
  local result, err = request(buf, "textDocument/references", params)
  local got = vim.tbl_map(brief, as_list(result))
  local expected = {
    locate("daily/2024-03-15.md", "[[hybrid-search]]"), -- Chinese before the link
    locate("pkm/知识管理.md", "[[hybrid-search|"),
    locate("search/向量检索.md", "[[hybrid-search]]"),
    locate("ml/embeddings.md", "[[hybrid-search]]"),
    locate("index.md", "[[hybrid-search|"),
    locate(NOTE, "[[hybrid-search]]"),
  }
  local missing = {}
  for _, spot_ in ipairs(expected) do
    local want = ("%s:%d:%d"):format(spot_.rel, spot_.line, spot_.byte)
    if not vim.tbl_contains(got, want) then
      table.insert(missing, want)
    end
  end
  check("references", err == nil and #missing == 0, { count = #got, missing = missing, got = got, error = err })
end

local function hover_text(result)
  if result == nil or result == vim.NIL then
    return ""
  end
  local contents = result.contents
  if type(contents) == "string" then
    return contents
  end
  if contents.value then
    return contents.value
  end
  return table.concat(vim.tbl_map(function(part)
    return type(part) == "string" and part or part.value
  end, contents), "\n")
end

local function check_hover(buf)
  local spot = locate(NOTE, "[[hybrid-search]]")
  local result, err = request(buf, "textDocument/hover", at(buf, spot))
  local text = hover_text(result)
  local ok = text:find("Hybrid search", 1, true) ~= nil and text:find("inlinks", 1, true) ~= nil
  check("hover", ok, { excerpt = text:sub(1, 300), error = err })
end

local function check_symbol(buf, query, want)
  local result, err = request(buf, "workspace/symbol", { query = query })
  local paths = vim.tbl_map(function(symbol)
    return rel_of(symbol.location.uri)
  end, as_list(result))
  check("workspace/symbol " .. query, vim.tbl_contains(paths, want), {
    query = query,
    want = want,
    got = vim.list_slice(paths, 1, 5),
    error = err,
  })
end

-- Semantic search with the default (offline) embedder: a question that shares no word with the
-- Kyoto note finds it once the background embedding has caught up.
local function check_semantic(buf)
  vim.wait(INDEX_MS, function()
    return vectors ~= nil or client:is_stopped()
  end, 50)
  local query = "visiting shrines of former imperial capitals"
  local result, err = request(buf, "memlsp/search", { query = query, mode = "vector", limit = 3 })
  local paths = vim.tbl_map(function(hit)
    return hit.path
  end, (result or {}).results or {})
  check("semantic search", vectors ~= nil and vectors.state == "ready" and paths[1] == "travel/kyoto-2023.md", {
    vectors = vectors,
    got = paths,
    error = err,
  })
end

-- Completion as Neovim's client asks for it: type `[[向量` after emoji on a new line of the buffer
-- (sent by Neovim as didChange), apply the first item's edit with Neovim's own function, and
-- follow the link it wrote.
local function check_completion(buf)
  local typed = "🚀 见 [[向量"
  local line = vim.api.nvim_buf_line_count(buf)
  vim.api.nvim_buf_set_lines(buf, line, line, false, { typed })
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = line, character = #typed },
  }
  local result, err = request(buf, "textDocument/completion", params)
  local items = (result or {}).items or result or {}
  local first = items[1]
  if first == nil or first.textEdit == nil then
    check("completion", false, { got = result, error = err })
    return
  end
  vim.lsp.util.apply_text_edits({ first.textEdit }, buf, "utf-8")
  local written = vim.api.nvim_buf_get_lines(buf, line, line + 1, false)[1]
  local place, definition_err = nil, nil
  vim.wait(REQUEST_MS, function()
    local found
    found, definition_err = request(buf, "textDocument/definition", {
      textDocument = params.textDocument,
      position = { line = line, character = #typed },
    })
    place = as_list(found)[1]
    return place ~= nil
  end, 100)
  local target = place and rel_of(place.uri or place.targetUri)
  check("completion", written == "🚀 见 [[向量检索]]" and target == "search/向量检索.md", {
    label = first.label,
    written = written,
    followed = target,
    error = err or definition_err,
  })
end

-- Completion by meaning: after `[[`, a phrase that shares no word with any note's name is offered
-- the note about it, written `[[note|phrase]]`. First the server's item as such (its edit applied
-- with Neovim's own function, as `check_completion` does); then as a user gets it: `<C-x><C-o>`
-- (Neovim's `vim.lsp.omnifunc`) in Insert mode, the note chosen in Neovim's popup menu, which
-- inserts what Neovim makes of the item. The keys run as typed; `memlsp_choose_by_meaning` runs
-- inside Insert mode (`<Cmd>`), where it waits for the menu the server's answer fills.
local PHRASE = "visiting shrines of former imperial capitals"
local BY_MEANING = "by meaning · travel/kyoto-2023.md"
local LINKED_PHRASE = "[[kyoto-2023|" .. PHRASE .. "]]"
local menu = { offered = {} }

function _G.memlsp_choose_by_meaning()
  menu.shown = vim.wait(REQUEST_MS, function()
    return vim.fn.pumvisible() == 1
  end, 20)
  for index, entry in ipairs(vim.fn.complete_info({ "items" }).items or {}) do
    local item = vim.tbl_get(entry, "user_data", "nvim", "lsp", "completion_item") or {}
    table.insert(menu.offered, { detail = item.detail or entry.menu, word = entry.word })
    if item.detail == BY_MEANING and menu.chosen == nil then
      menu.chosen = entry.word
      vim.api.nvim_select_popupmenu_item(index - 1, true, true, {})
    end
  end
end

local function new_line(buf, text)
  local line = vim.api.nvim_buf_line_count(buf)
  vim.api.nvim_buf_set_lines(buf, line, line, false, { text })
  return line
end

local function check_completion_by_meaning(buf)
  local typed = "[[" .. PHRASE
  local line = new_line(buf, typed)
  local result, err = request(buf, "textDocument/completion", {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = line, character = #typed },
  })
  local item = nil
  for _, candidate in ipairs((result or {}).items or result or {}) do
    if candidate.detail == BY_MEANING then
      item = candidate
      break
    end
  end
  if item ~= nil and item.textEdit ~= nil then
    vim.lsp.util.apply_text_edits({ item.textEdit }, buf, client.offset_encoding)
  end
  local written = vim.api.nvim_buf_get_lines(buf, line, line + 1, false)[1]
  check("completion by meaning", written == LINKED_PHRASE and item ~= nil and item.filterText == PHRASE, {
    item = item or vim.NIL,
    written = written,
    error = err,
  })

  line = new_line(buf, typed)
  vim.api.nvim_win_set_buf(0, buf)
  vim.api.nvim_win_set_cursor(0, { line + 1, 0 })
  vim.bo[buf].omnifunc = "v:lua.vim.lsp.omnifunc"
  -- As the LspAttach recipe of docs/editors.md: Neovim's LSP completion expands the chosen item whole.
  vim.lsp.completion.enable(true, client.id, buf)
  vim.api.nvim_feedkeys(vim.keycode("A<C-x><C-o><Cmd>lua _G.memlsp_choose_by_meaning()<CR><Esc>"), "x", false)
  written = vim.api.nvim_buf_get_lines(buf, line, line + 1, false)[1]
  check("completion by meaning in the menu", written == LINKED_PHRASE, {
    menu = menu.shown,
    offered = menu.offered,
    written = written,
  })
end

--- The code lens on the note's first line, through Neovim's own codelens module (refresh, then
--- the lenses it keeps for the buffer), and its command bound as docs/editors.md says.
local function check_code_lens(buf)
  vim.lsp.commands["memlsp.showLinks"] = function()
    vim.lsp.buf.references()
  end
  vim.lsp.codelens.refresh({ bufnr = buf })
  local lenses = {}
  vim.wait(REQUEST_MS, function()
    lenses = vim.lsp.codelens.get(buf)
    return #lenses > 0 and lenses[1].command ~= nil
  end, 50)
  local lens = lenses[1]
  local title = lens and lens.command and lens.command.title or ""
  check("code lens", lens ~= nil and lens.range.start.line == 0
    and title:match("^%d+ inlinks? · %d+ outlinks?") ~= nil
    and lens.command.command == "memlsp.showLinks", { title = title })
end

--- Neovim's own rename (prepareRename, rename, its own apply_workspace_edit, which renames the
--- file), every changed buffer written, then the links checked on disk and followed again.
local function check_rename(buf)
  local spot = locate(NOTE, "[[hybrid-search]]")
  vim.api.nvim_win_set_cursor(0, { spot.line + 1, spot.byte + 4 })
  vim.lsp.buf.rename("hybrid retrieval", { name = "memlsp" })
  local renamed = VAULT .. "/search/hybrid retrieval.md"
  local moved = vim.wait(REQUEST_MS, function()
    return vim.fn.filereadable(renamed) == 1
  end, 50)
  vim.cmd("silent! wall")
  local index = table.concat(vim.fn.readfile(VAULT .. "/index.md"), "\n")
  local buffer = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
  local place, err = nil, nil
  vim.wait(REQUEST_MS, function()
    local found
    found, err = request(buf, "textDocument/definition", {
      textDocument = { uri = vim.uri_from_bufnr(buf) },
      position = { line = spot.line, character = spot.byte + 4 },
    })
    place = as_list(found)[1]
    return place ~= nil and rel_of(place.uri) == "search/hybrid retrieval.md"
  end, 100)
  check("rename", moved
    and vim.fn.filereadable(VAULT .. "/search/hybrid-search.md") == 0
    and index:find("[[hybrid retrieval|混合检索]]", 1, true) ~= nil
    and buffer:find("总览 [[hybrid retrieval]] 🎉", 1, true) ~= nil
    and place ~= nil and rel_of(place.uri) == "search/hybrid retrieval.md", {
    moved = moved,
    followed = place and rel_of(place.uri),
    error = err,
  })
end

local buf = start()
check_encoding()
check_definition("definition heading link", buf, "[[hybrid-search#Fusion]]", "search/hybrid-search.md", "## Fusion")
check_definition("definition block link", buf, "[[向量检索#^hnsw-params]]", "search/向量检索.md", "^hnsw-params")
check_references(buf)
check_hover(buf)
check_symbol(buf, "tantivy", "search/tantivy.md")
check_symbol(buf, "向量检索", "search/向量检索.md")
check_completion(buf)
check_semantic(buf)
check_completion_by_meaning(buf)
check_code_lens(buf)
check_rename(buf)
finish()
