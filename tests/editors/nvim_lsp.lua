-- Drive TurnLens from a real Neovim (0.7+) headless: attach, wait for diagnostics,
-- ask for code lenses, write what arrived as JSON, quit.
local out_path = os.getenv("TURNLENS_NVIM_OUT")
local server_cmd = vim.fn.json_decode(os.getenv("TURNLENS_SERVER_CMD"))
local root = os.getenv("TURNLENS_ROOT")
local result = { diagnostics = {}, lenses = {}, errors = {} }

local function finish()
  local f = io.open(out_path, "w")
  f:write(vim.fn.json_encode(result))
  f:close()
  vim.cmd("qa!")
end

local ok, err = pcall(function()
  local client_id = vim.lsp.start_client({
    name = "turnlens",
    cmd = server_cmd,
    root_dir = root,
    settings = { turnlens = { debounceMs = 0 } },
    on_error = function(code) table.insert(result.errors, tostring(code)) end,
  })
  assert(client_id, "the language server did not start")
  vim.lsp.buf_attach_client(0, client_id)
  local bufnr = vim.api.nvim_get_current_buf()
  vim.wait(15000, function() return #vim.diagnostic.get(bufnr) > 0 end, 50)
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(result.diagnostics, { lnum = d.lnum, col = d.col, message = d.message, code = d.code, source = d.source })
  end
  local client = vim.lsp.get_client_by_id(client_id)
  local done = false
  client.request("textDocument/codeLens", { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }, function(e, lenses)
    if e then table.insert(result.errors, vim.inspect(e)) end
    for _, lens in ipairs(lenses or {}) do
      table.insert(result.lenses, { line = lens.range.start.line, title = lens.command and lens.command.title or "" })
    end
    done = true
  end, bufnr)
  vim.wait(10000, function() return done end, 50)
  client.stop()
end)
if not ok then table.insert(result.errors, tostring(err)) end
finish()
