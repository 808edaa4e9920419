" What the test reads from a running Vim + ALE (sourced with :source, after the editor was set
" up only from the docs page): ALE's diagnostics, the buffer text, messages.
let s:diags = []
for s:item in ale#engine#GetLoclist(bufnr(''))
  call add(s:diags, {'lnum': s:item.lnum - 1, 'type': s:item.type, 'text': s:item.text,
  \ 'code': get(s:item, 'code', ''), 'linter': s:item.linter_name})
endfor
let s:out = {'diagnostics': s:diags, 'lines': getline(1, '$'), 'file': expand('%:p'),
\ 'filetype': &filetype, 'messages': execute('messages')}
call writefile([json_encode(s:out)], $TURNLENS_PROBE)
