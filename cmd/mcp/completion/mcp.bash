# bash completion for mcp; the candidates come from mcp itself.
#   mcp completion bash > ~/.local/share/bash-completion/completions/mcp
# or, in ~/.bashrc:
#   source <(mcp completion bash)
_mcp_complete() {
	local IFS=$'\n'
	COMPREPLY=($(COMP_LINE="${COMP_LINE:0:COMP_POINT}" COMP_POINT="$COMP_POINT" command mcp 2>/dev/null))
	# A server ("files.") or a key ("path=") is the start of a word: the
	# next Tab goes on from it, so no space follows it.
	if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *[.=] ]]; then
		compopt -o nospace
	fi
}
complete -o default -o bashdefault -F _mcp_complete mcp
