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
local clients = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = bufnr }) or vim.lsp.buf_get_clients(bufnr)
for _, client in pairs(clients) do
  table.insert(out.clients, client.name)
end
out.hints = {}
if vim.lsp.inlay_hint and vim.lsp.inlay_hint.get then  -- Neovim 0.10+
  for _, item in ipairs(vim.lsp.inlay_hint.get({ bufnr = bufnr })) do
    local label = item.inlay_hint.label
    if type(label) == "table" then
      local parts = {}
      for _, part in ipairs(label) do table.insert(parts, part.value) end
      label = table.concat(parts)
    end
    table.insert(out.hints, { line = item.inlay_hint.position.line, label = label })
  end
end
out.messages = vim.fn.execute("messages")
local f = assert(io.open(os.getenv("TURNLENS_PROBE"), "w"))
f:write(vim.fn.json_encode(out))
f:close()
