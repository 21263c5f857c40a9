#compdef mcp
# zsh completion for mcp; the candidates come from mcp itself.
#   mcp completion zsh > "${fpath[1]}/_mcp"
# or, in ~/.zshrc after compinit:
#   source <(mcp completion zsh)
_mcp() {
	local line="${(j: :)${(@)words[1,CURRENT-1]}} ${PREFIX}"
	local -a candidates
	candidates=(${(f)"$(COMP_LINE="$line" COMP_POINT=${#line} command mcp 2>/dev/null)"})
	if (( ${#candidates} )); then
		compadd -- "${candidates[@]}"
	else
		_files
	fi
}
if [[ "${funcstack[1]}" == _mcp ]]; then
	_mcp "$@"
else
	compdef _mcp mcp
fi
