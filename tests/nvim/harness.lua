-- What every headless Neovim check script shares: one JSON line per check on stdout, a bounded
-- stop of the client, and the exit code (0 when every check passed).
--
--   local harness = dofile(vim.fs.joinpath(vim.fs.dirname(arg[0]), "harness.lua"))
--   harness.client = vim.lsp.get_client_by_id(id)  -- once started, for `finish` to stop it

local M = { failures = 0, client = nil, stop_ms = 5000 }

function M.emit(record)
  io.stdout:write(vim.json.encode(record), "\n")
  io.stdout:flush()
end

function M.check(name, ok, details)
  local record = vim.tbl_extend("force", details or {}, { check = name, ok = ok and true or false })
  M.emit(record)
  if not ok then
    M.failures = M.failures + 1
  end
  return ok
end

local function stop_client()
  local client = M.client
  if client == nil or client:is_stopped() then
    return true
  end
  client:stop()
  local function stopped()
    return client:is_stopped()
  end
  if vim.wait(M.stop_ms, stopped, 50) then
    return true
  end
  client:stop(true) -- kill
  vim.wait(M.stop_ms, stopped, 50)
  return false
end

function M.finish()
  local stopped = stop_client()
  M.check("client stopped", stopped, stopped and {} or { message = "memlsp did not exit on shutdown" })
  M.emit({ check = "done", ok = M.failures == 0, failures = M.failures })
  if M.failures == 0 then
    vim.cmd("qa!")
  end
  os.exit(1)
end

function M.fatal(message)
  M.check("fatal", false, { message = message })
  M.finish()
end

return M
