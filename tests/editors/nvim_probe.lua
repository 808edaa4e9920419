-- What the test reads from a running Neovim (sourced with :luafile, after the editor is set
-- up only from the docs page): diagnostics, lenses, buffer text, attached clients, messages.
local bufnr = vim.api.nvim_get_current_buf()
local out = { diagnostics = {}, lenses = {}, clients = {}, lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false) }
for _, d in ipairs(vim.diagnostic.get(bufnr)) do
  local lsp = (d.user_data or {}).lsp or {}
  table.insert(out.diagnostics, {
    lnum = d.lnum, severity = d.severity, message = d.message, source = d.source,
    code = d.code or lsp.code, data = lsp.data, codeDescription = lsp.codeDescription,
  })
end
for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
  table.insert(out.lenses, { line = lens.range.start.line, title = lens.command and lens.command.title or "" })
end
for _, client in pairs(vim.lsp.buf_get_clients(bufnr)) do
  table.insert(out.clients, client.name)
end
out.messages = vim.fn.execute("messages")
local f = assert(io.open(os.getenv("TURNLENS_PROBE"), "w"))
f:write(vim.fn.json_encode(out))
f:close()
