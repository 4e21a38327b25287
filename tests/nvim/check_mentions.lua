-- Unlinked mentions and related notes in a real Neovim 0.11, headless.
--
--   nvim --headless -u NONE -i NONE -n -l tests/nvim/check_mentions.lua VAULT CACHE PYTHON RECIPE
--
-- VAULT is the small vault tests/editors/test_neovim_mentions.py writes; RECIPE a Lua file holding the
-- `memlsp.showRelated` / `memlsp.showUnlinked` bindings of docs/editors.md, run here as a user's init would.
-- The script starts `PYTHON -m memlsp --stdio` (the default embedder) on `search log.md`, waits for
-- `memlsp/indexed` and for the unlinked-mention diagnostics Neovim receives, asks for the quick
-- fixes at two mentions and applies "Link all … in this note" with Neovim's own
-- `apply_workspace_edit`; then opens `Reciprocal Rank Fusion.md`, runs its `N unlinked` and
-- `N related` code lenses through the bindings of docs/editors.md (the quickfix list), and applies
-- "Link all N unlinked mentions of …" from its first line, which edits files not open too; they are
-- written with `:wall`. Each check prints one JSON line {"check": ..., "ok": ..., ...}; the test
-- asserts what they hold. Every wait is bounded; the exit code is 0 when every check passed.

local VAULT, CACHE, PYTHON, RECIPE = arg[1], arg[2], arg[3], arg[4]
local NOTE = "search log.md"
local MENTIONED = "Reciprocal Rank Fusion.md"
local START_MS = 20000 -- server start and `initialize`
local INDEX_MS = 60000 -- indexing, and the vectors of the small vault
local REQUEST_MS = 10000 -- one request, or one change reaching the diagnostics

local harness = dofile(vim.fs.joinpath(vim.fs.dirname(arg[0]), "harness.lua"))
local check, finish, fatal = harness.check, harness.finish, harness.fatal
local lsp = dofile(vim.fs.joinpath(vim.fs.dirname(arg[0]), "lsp.lua"))
local client = nil

if not (VAULT and CACHE and PYTHON and RECIPE) then
  io.stderr:write("usage: nvim --headless -u NONE -i NONE -n -l check_mentions.lua VAULT CACHE PYTHON RECIPE\n")
  os.exit(2)
end
VAULT = vim.fs.normalize(vim.fn.fnamemodify(VAULT, ":p")):gsub("/$", "")

-- -- where things are ----------------------------------------------------------------------------

local function rel_of_path(path)
  return lsp.relative(VAULT, path)
end

local function rel_of(uri)
  return rel_of_path(vim.uri_to_fname(uri))
end

local function buffer_text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n") .. "\n"
end

--- The 0-based line and byte column of the first `needle` in the buffer.
local function find_in(buf, needle)
  for index, text in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local start = text:find(needle, 1, true)
    if start then
      return index - 1, start - 1
    end
  end
  fatal(("%q not found in %s"):format(needle, rel_of_path(vim.api.nvim_buf_get_name(buf))))
end

-- -- requests ------------------------------------------------------------------------------------

local function request(buf, method, params)
  return lsp.request(client, buf, method, params, REQUEST_MS)
end

--- The code actions Neovim's `gra` would get with the cursor at `line`, `byte` (no selection).
local function actions_at(buf, line, byte)
  local position = { line = line, character = byte }
  local here = vim.tbl_map(function(d)
    return d.user_data.lsp
  end, vim.diagnostic.get(buf, { lnum = line }))
  local result, err = request(buf, "textDocument/codeAction", {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = { start = position, ["end"] = position },
    context = { diagnostics = here, triggerKind = 1 },
  })
  return result or {}, err
end

local function titles(actions)
  return vim.tbl_map(function(action)
    return action.title
  end, actions)
end

local function action_titled(actions, pattern)
  for _, action in ipairs(actions) do
    if action.title:match(pattern) then
      return action
    end
  end
  return nil
end

-- -- start the server ----------------------------------------------------------------------------

local indexed, vectors = nil, nil
local published = {} -- note path -> the document version its last diagnostics were for

local function open(rel)
  vim.cmd.edit(vim.fn.fnameescape(VAULT .. "/" .. rel))
  return vim.api.nvim_get_current_buf()
end

local function start()
  vim.o.hidden = true -- a changed buffer stays loaded when another note is opened
  local buf = open(NOTE)
  -- init_options name no embedder: the server uses its default one.
  local id = vim.lsp.start(lsp.memlsp(PYTHON, VAULT, CACHE, {
    ["memlsp/indexed"] = function(_, params)
      indexed = params
    end,
    ["memlsp/vectors"] = function(_, params)
      vectors = params.vectors
    end,
    -- Neovim's own handler, after noting which version of the note the diagnostics are for.
    ["textDocument/publishDiagnostics"] = function(err, result, ctx)
      published[vim.fs.normalize(vim.uri_to_fname(result.uri))] = result.version or -1
      return vim.lsp.handlers["textDocument/publishDiagnostics"](err, result, ctx)
    end,
  }), { bufnr = buf })
  if id == nil then
    fatal("vim.lsp.start did not start a client")
  end
  client = vim.lsp.get_client_by_id(id)
  harness.client = client
  if not lsp.initialized(client, START_MS) then
    fatal(("memlsp did not answer `initialize` in %d ms"):format(START_MS))
  end
  check("initialized", true, { offset_encoding = client.offset_encoding })
  if lsp.await(client, INDEX_MS, function()
    return indexed
  end) == nil then
    fatal(("no memlsp/indexed notification in %d ms"):format(INDEX_MS))
  end
  check("indexed", indexed.notes ~= nil, { notes = indexed.notes })
  return buf
end

-- -- diagnostics ---------------------------------------------------------------------------------

--- The unlinked-mention diagnostics Neovim holds for the buffer, in order, each with the text
--- it covers (Neovim's own byte columns).
local function mentions_flagged(buf)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.source == "memlsp" and d.code == "unlinked-mention" then
      local line = vim.api.nvim_buf_get_lines(buf, d.lnum, d.lnum + 1, false)[1] or ""
      local raw = d.user_data and d.user_data.lsp or {}
      table.insert(found, {
        text = d.lnum == d.end_lnum and line:sub(d.col + 1, d.end_col) or "",
        line = d.lnum,
        col = d.col,
        severity = d.severity,
        message = d.message,
        candidates = raw.data and raw.data.candidates or vim.NIL,
      })
    end
  end
  table.sort(found, function(a, b)
    return a.line < b.line or (a.line == b.line and a.col < b.col)
  end)
  return found
end

local function texts_of(flagged)
  return vim.tbl_map(function(item)
    return item.text
  end, flagged)
end

local function check_diagnostics(buf)
  vim.wait(INDEX_MS, function()
    return #mentions_flagged(buf) > 0 or client:is_stopped()
  end, 50)
  -- A request answered means every notification sent before it has been handled.
  request(buf, "textDocument/hover", {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = 0, character = 0 },
  })
  local flagged = mentions_flagged(buf)
  check("diagnostics", #flagged > 0, { flagged = flagged })
end

-- -- quick fixes in the mentioning note ----------------------------------------------------------

local function check_shared_name(buf)
  local line, byte = find_in(buf, "roadmap")
  local actions, err = actions_at(buf, line, byte + 1)
  check("actions at a shared name", err == nil, { titles = titles(actions), error = err })
end

local function check_link_all_here(buf)
  local line, byte = find_in(buf, "BM25 with")
  local actions, err = actions_at(buf, line, byte + 1)
  check("actions at a mention", err == nil, {
    titles = titles(actions),
    kinds = vim.tbl_map(function(action)
      return action.kind
    end, actions),
    error = err,
  })
  local all = action_titled(actions, "^Link all %d+ mentions of .* in this note$")
  if all == nil or all.edit == nil then
    check("link all in this note", false, { titles = titles(actions) })
    return
  end
  vim.lsp.util.apply_workspace_edit(all.edit, client.offset_encoding)
  check("link all in this note", true, { title = all.title, kind = all.kind, text = buffer_text(buf) })
  -- Until the server publishes diagnostics for the changed text, Neovim shows the old ones.
  local path = vim.fs.normalize(vim.api.nvim_buf_get_name(buf))
  local current = vim.wait(REQUEST_MS, function()
    return (published[path] or -1) >= vim.lsp.util.buf_versions[buf]
  end, 20)
  check("diagnostics after linking", current, {
    flagged = texts_of(mentions_flagged(buf)),
    version = vim.lsp.util.buf_versions[buf],
    published = published[path] or vim.NIL,
  })
end

-- -- the mentioned note: lenses, the recipe's bindings, link all ------------------------------------

local function lens_titles(buf)
  return vim.tbl_map(function(lens)
    return lens.command and lens.command.title or ""
  end, vim.lsp.codelens.get(buf))
end

local function lens_matching(buf, pattern)
  for _, lens in ipairs(vim.lsp.codelens.get(buf)) do
    if lens.command and lens.command.title:match(pattern) then
      return lens
    end
  end
  return nil
end

--- Waits for a code lens whose title matches `pattern`, asking again as Neovim does on a change.
local function wait_for_lens(buf, pattern, ms)
  local deadline = vim.uv.hrtime() + ms * 1e6
  repeat
    vim.lsp.codelens.refresh({ bufnr = buf })
    vim.wait(1000, function()
      return lens_matching(buf, pattern) ~= nil
    end, 20)
  until lens_matching(buf, pattern) ~= nil or vim.uv.hrtime() > deadline or client:is_stopped()
  return lens_matching(buf, pattern)
end

--- Runs a lens's command as `vim.lsp.codelens.run()` does once a lens is chosen, and returns the
--- quickfix list it fills.
local function run_into_quickfix(buf, lens)
  vim.fn.setqflist({}, " ", { title = "(waiting)", items = {} })
  client:exec_cmd(lens.command, { bufnr = buf })
  vim.wait(REQUEST_MS, function()
    return vim.fn.getqflist({ title = 0 }).title ~= "(waiting)"
  end, 20)
  local list = vim.fn.getqflist({ title = 0, items = 0 })
  local items = vim.tbl_map(function(item)
    return {
      file = rel_of_path(vim.api.nvim_buf_get_name(item.bufnr)),
      lnum = item.lnum,
      col = item.col,
      text = item.text,
    }
  end, list.items)
  return list.title, items
end

local function check_lenses(buf)
  vim.wait(INDEX_MS, function()
    return (vectors ~= nil and vectors.state == "ready") or client:is_stopped()
  end, 50)
  local unlinked = wait_for_lens(buf, "^%d+ unlinked$", REQUEST_MS)
  local related = wait_for_lens(buf, "^%d+ related$", INDEX_MS)
  check("code lenses", unlinked ~= nil and related ~= nil, {
    titles = lens_titles(buf),
    vectors = vectors,
    unlinked = unlinked and unlinked.command or vim.NIL,
    related = related and related.command or vim.NIL,
  })
  return unlinked, related
end

local function check_recipe_bindings(buf, unlinked, related)
  local loaded, err = pcall(dofile, RECIPE)
  check("recipe bindings load", loaded, { error = not loaded and tostring(err) or nil })
  if not loaded then
    return
  end
  if unlinked then
    local title, items = run_into_quickfix(buf, unlinked)
    local open = vim.fn.getqflist({ winid = 0 }).winid ~= 0
    check("show unlinked", #items > 0 and open, { title = title, items = items, window = open })
    vim.cmd.cclose()
  end
  if related then
    local title, items = run_into_quickfix(buf, related)
    check("show related", #items > 0, { title = title, items = items })
    vim.cmd.cclose()
  end
end

local function read_file(rel)
  return table.concat(vim.fn.readfile(VAULT .. "/" .. rel), "\n") .. "\n"
end

local function check_link_all_mentions(buf, notes)
  local actions, err = actions_at(buf, 0, 0)
  local all = action_titled(actions, "^Link all %d+ unlinked mentions of ")
  if all == nil or all.edit == nil then
    check("link all unlinked mentions", false, { titles = titles(actions), error = err })
    return
  end
  local changed = vim.tbl_map(function(change)
    return {
      file = rel_of(change.textDocument.uri),
      version = change.textDocument.version or vim.NIL,
      edits = #change.edits,
    }
  end, all.edit.documentChanges or {})
  vim.lsp.util.apply_workspace_edit(all.edit, client.offset_encoding)
  vim.cmd("silent wall")
  local texts = {}
  for _, rel in ipairs(notes) do
    texts[rel] = read_file(rel)
  end
  check("link all unlinked mentions", true, {
    title = all.title,
    kind = all.kind,
    changes = changed,
    texts = texts,
  })
  -- Written, the notes no longer mention it unlinked: memlsp/mentions says so once it has them.
  local answer, mentions_err = nil, nil
  vim.wait(REQUEST_MS, function()
    answer, mentions_err = request(buf, "memlsp/mentions", { uri = vim.uri_from_bufnr(buf) })
    return answer ~= nil and #answer.mentions == 0
  end, 200)
  check("no mentions left", answer ~= nil and #answer.mentions == 0, {
    left = answer and answer.mentions or vim.NIL,
    error = mentions_err,
  })
end

local buf = start()
check_diagnostics(buf)
check_shared_name(buf)
check_link_all_here(buf)
local mentioned = open(MENTIONED)
vim.lsp.buf_attach_client(mentioned, client.id)
local unlinked, related = check_lenses(mentioned)
check_recipe_bindings(mentioned, unlinked, related)
check_link_all_mentions(mentioned, { NOTE, "hybrid search.md", "论文摘录.md" })
finish()
