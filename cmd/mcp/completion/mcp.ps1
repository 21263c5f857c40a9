# PowerShell completion for mcp; the candidates come from mcp itself.
#   mcp completion powershell | Out-String | Invoke-Expression
# or, for every new shell, in $PROFILE:
#   mcp completion powershell > "$HOME\mcp-completion.ps1"; . "$HOME\mcp-completion.ps1"
Register-ArgumentCompleter -Native -CommandName mcp, mcp.exe -ScriptBlock {
	param($wordToComplete, $commandAst, $cursorPosition)
	# The words typed so far, up to the cursor; a cursor past the end
	# (after a space) starts a new word.
	$line = $commandAst.Extent.Text
	$point = $cursorPosition - $commandAst.Extent.StartOffset
	if ($point -lt $line.Length) { $line = $line.Substring(0, $point) }
	elseif ($point -gt $line.Length) { $line = $line + (' ' * ($point - $line.Length)) }
	$saved = $env:COMP_LINE, $env:COMP_POINT
	try {
		$env:COMP_LINE = $line
		$env:COMP_POINT = "$($line.Length)"
		$candidates = & (Get-Command mcp -CommandType Application | Select-Object -First 1) 2>$null
	} finally {
		$env:COMP_LINE, $env:COMP_POINT = $saved
	}
	foreach ($c in $candidates) {
		[System.Management.Automation.CompletionResult]::new($c, $c, 'ParameterValue', $c)
	}
}
