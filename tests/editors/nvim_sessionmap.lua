-- Drive TurnLens's session map from a real Neovim (0.7+) headless, the way docs/editors/neovim.md
-- says: vim.lsp.buf.execute_command on turnlens.sessionMap, then wait for the page the server
-- writes; also ask through client.request to read the command's answer (the page's path).
local out_path = os.getenv("TURNLENS_NVIM_OUT")
local server_cmd = vim.fn.json_decode(os.getenv("TURNLENS_SERVER_CMD"))
local root = os.getenv("TURNLENS_ROOT")
local pages = os.getenv("TURNLENS_EXPECTED_PAGES") -- a glob: page names have a random part
local result = { errors = {}, answer = vim.NIL, written = false, messages = {} }

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
    handlers = {
      ["window/showMessage"] = function(_, params) table.insert(result.messages, params.message) end,
    },
    on_error = function(code) table.insert(result.errors, tostring(code)) end,
  })
  assert(client_id, "the language server did not start")
  local bufnr = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(bufnr, client_id)
  vim.wait(15000, function() return #vim.diagnostic.get(bufnr) > 0 end, 50)
  -- the documented call
  vim.lsp.buf.execute_command({ command = "turnlens.sessionMap", arguments = { { uri = vim.uri_from_bufnr(0) } } })
  result.written = vim.wait(15000, function() return vim.fn.glob(pages) ~= "" end, 50)
  -- the same command, reading its answer
  local done = false
  local client = vim.lsp.get_client_by_id(client_id)
  client.request("workspace/executeCommand", { command = "turnlens.sessionMap", arguments = { { uri = vim.uri_from_bufnr(bufnr) } } }, function(e, answer)
    if e then table.insert(result.errors, vim.inspect(e)) end
    result.answer = answer or vim.NIL
    done = true
  end, bufnr)
  vim.wait(15000, function() return done end, 50)
  client.stop()
end)
if not ok then table.insert(result.errors, tostring(err)) end
finish()
