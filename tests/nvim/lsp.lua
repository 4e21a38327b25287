-- What the headless Neovim scripts (tests/nvim/check_*.lua, tests/editors/nvim_recipe.lua) share
-- to talk to memlsp through Neovim's own LSP client: its start, bounded waits, requests, and
-- locations as lists and vault paths. The scripts still decide what they check.
--
--   local lsp = dofile(vim.fs.joinpath(vim.fs.dirname(arg[0]), "lsp.lua"))

local M = {}

--- The client config for `PYTHON -m memlsp --stdio` over the vault `root`, its cache in `cache`.
function M.memlsp(python, root, cache, handlers)
  return {
    name = "memlsp",
    cmd = { python, "-m", "memlsp", "--stdio" },
    root_dir = root,
    init_options = { cache_dir = cache },
    handlers = handlers,
  }
end

--- Waits at most `ms` for `client` to answer `initialize` (or stop); whether it answered.
function M.initialized(client, ms)
  vim.wait(ms, function()
    return client:is_stopped() or client.initialized
  end, 20)
  return client.initialized
end

--- Waits at most `ms` until `value()` is not nil (or `client` stops); that value.
function M.await(client, ms, value)
  vim.wait(ms, function()
    return value() ~= nil or client:is_stopped()
  end, 20)
  return value()
end

--- The client's answer to one request about the buffer `buf` within `ms`, or nil and a message.
function M.request(client, buf, method, params, ms)
  local answer, err = client:request_sync(method, params, ms, buf)
  if answer == nil then
    return nil, ("%s: %s"):format(method, err or "timed out")
  end
  if answer.err then
    return nil, ("%s: error %s"):format(method, vim.inspect(answer.err))
  end
  return answer.result
end

--- A definition-like result as a list of locations: none, one or many.
function M.as_list(result)
  if result == nil or result == vim.NIL then
    return {}
  end
  if result.uri or result.targetUri then
    return { result }
  end
  return result
end

--- `path` relative to the folder `root` (no trailing slash) when inside it, else `path` itself.
function M.relative(root, path)
  path = vim.fs.normalize(path)
  local prefix = root .. "/"
  return path:sub(1, #prefix) == prefix and path:sub(#prefix + 1) or path
end

return M
