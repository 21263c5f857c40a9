#compdef mcp
# zsh completion for mcp; the candidates come from mcp itself.
#   mcp completion zsh > "${fpath[1]}/_mcp"
# or, in ~/.zshrc after compinit:
#   source <(mcp completion zsh)
_mcp() {
	local line="${(j: :)${(@)words[1,CURRENT-1]}} ${PREFIX}"
	local -a candidates partial whole
	candidates=(${(f)"$(COMP_LINE="$line" COMP_POINT=${#line} command mcp 2>/dev/null)"})
	if (( ! ${#candidates} )); then
		_files
		return
	fi
	# mcp answers for what follows the word's last "=" (a key's value).
	compset -P '*='
	# A server ("files.") or a key ("path=") is the start of a word: no
	# space follows it.
	partial=(${(M)candidates:#*[.=]})
	whole=(${candidates:#*[.=]})
	local ret=1
	(( ${#partial} )) && compadd -S '' -- "${partial[@]}" && ret=0
	(( ${#whole} )) && compadd -- "${whole[@]}" && ret=0
	return $ret
}
if [[ "${funcstack[1]}" == _mcp ]]; then
	_mcp "$@"
else
	compdef _mcp mcp
fi
