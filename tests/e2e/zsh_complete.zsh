# zsh -f zsh_complete.zsh SCRIPT OUT LINE: types LINE and a TAB into an interactive zsh (a
# pseudo-terminal, zsh/zpty) that loaded the completion SCRIPT, then has a widget write the
# edited command line to OUT: what a user sees after pressing TAB. Used by test_cli.py.
zmodload zsh/zpty || exit 77
zpty z zsh -f -i
zpty -w z "PS1='> '; autoload -U compinit; compinit -u -D; source $1"
zpty -w z "dump() { print -r -- \"\$BUFFER\" > $2; }; zle -N dump; bindkey '^X^P' dump; bindkey '^I' complete-word"
sleep 0.5
zpty -w -n z "$3"$'\t'
sleep 0.7
zpty -w -n z $'\x18\x10'
sleep 0.5
zpty -d z
