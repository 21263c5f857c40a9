# fish completion for mcp; the candidates come from mcp itself.
#   mcp completion fish > ~/.config/fish/completions/mcp.fish
function __mcp_complete
	set -l line (commandline --current-process --cut-at-cursor)
	set -lx COMP_LINE (string join ' ' -- $line)
	set -lx COMP_POINT (string length -- "$COMP_LINE")
	# mcp answers for what follows the word's last "=" (a key's value);
	# fish completes the whole word.
	set -l before (string match -r -- '^.*=' (commandline --current-token --cut-at-cursor))
	for c in (command mcp 2>/dev/null)
		printf '%s\n' "$before$c"
	end
end
complete --command mcp --no-files --arguments '(__mcp_complete)'
