-- Drives a real Neovim whose init.lua is the recipe of docs/editors.md, as a user opening one note would.
--
--   nvim --headless -u INIT_LUA -i NONE -n -l tests/editors/nvim_recipe.lua NOTE LINK [QUERY]
--
-- It opens NOTE, waits for the memlsp client that the recipe attaches and for the server's
-- `memlsp/indexed`, then asks for the definition of the wikilink LINK (its text, e.g.
-- "[[hybrid-search]]", found in NOTE) and for `memlsp/status`. It prints one JSON line:
-- {"attached": bool, "root_dir": ..., "definition": [{"path", "line"}], "status": ..., "error": ...}.
-- With QUERY it also runs `:MemlspWhy QUERY` (the docs' recipe, in INIT_LUA too) and keeps the
-- lines it prints under "why".
-- Every wait is bounded; the test reads the line and decides.

local NOTE, LINK, QUERY = arg[1], arg[2], arg[3]
local START_MS = 20000 -- the recipe's root_dir, the server's start and `initialize`
local INDEX_MS = 60000 -- indexing the fixture vault
local REQUEST_MS = 10000
local STOP_MS = 5000

local lsp = dofile(vim.fs.joinpath(vim.fs.dirname(arg[0]), "..", "nvim", "lsp.lua"))
local report = { attached = false }

local function finish(client)
  if client ~= nil and not client:is_stopped() then
    client:stop()
    if not vim.wait(STOP_MS, function()
      return client:is_stopped()
    end, 20) then
      client:stop(true)
    end
  end
  io.stdout:write(vim.json.encode(report), "\n")
  io.stdout:flush()
  vim.cmd("qa!")
end

local indexed = nil
vim.lsp.handlers["memlsp/indexed"] = function(_, params)
  indexed = params
end

vim.cmd("filetype on") -- a user's Neovim has it on; `-l` leaves it off
vim.cmd.edit(vim.fn.fnameescape(NOTE))
local buf = vim.api.nvim_get_current_buf()

local client = nil
vim.wait(START_MS, function()
  client = vim.lsp.get_clients({ bufnr = buf, name = "memlsp" })[1]
  return client ~= nil and (client.initialized or client:is_stopped())
end, 20)
if client == nil or not client.initialized then
  report.error = client == nil and "the recipe attached no memlsp client" or "memlsp did not initialize"
  finish(client)
end
report.attached = true
report.root_dir = client.root_dir

if lsp.await(client, INDEX_MS, function()
  return indexed
end) == nil then
  report.error = "no memlsp/indexed notification"
  finish(client)
end

local spot = nil
for index, text in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
  local start = text:find(LINK, 1, true)
  if start then
    -- a few bytes inside the link: Neovim 0.11 negotiates UTF-8 columns
    spot = { line = index - 1, character = start - 1 + 3 }
    break
  end
end
if spot == nil then
  report.error = ("%s not found in %s"):format(LINK, NOTE)
  finish(client)
end

local position = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = spot }
local result, err = lsp.request(client, buf, "textDocument/definition", position, REQUEST_MS)
report.definition = vim.tbl_map(function(location)
  local range = location.range or location.targetSelectionRange
  return { path = vim.uri_to_fname(location.uri or location.targetUri), line = range.start.line }
end, lsp.as_list(result))
report.error = err
report.status, err = lsp.request(client, buf, "memlsp/status", {}, REQUEST_MS)
report.error = report.error or err
if QUERY then
  -- What the recipe prints, kept: this driver's own output is its one JSON line.
  report.why = {}
  _G.print = function(...)
    table.insert(report.why, table.concat(vim.tbl_map(tostring, { ... }), " "))
  end
  vim.cmd("MemlspWhy " .. QUERY)
  vim.wait(REQUEST_MS, function()
    return #report.why > 0
  end, 20)
end
finish(client)
