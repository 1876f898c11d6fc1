# zsh -f zsh_complete.zsh SCRIPT OUT LINE: types LINE and a TAB into an interactive zsh (a
# pseudo-terminal, zsh/zpty) that loaded the completion SCRIPT, then has a widget write the
# edited command line to OUT: what a user sees after pressing TAB. Used by test_cli.py.
# Nothing waits a fixed time: the keys are typed once the prompt set after the set-up is on the
# terminal (zle is reading), and the shell is closed once the widget has said it wrote OUT.
# (The markers are split by quotes in what is typed, so the echo of the typing never matches.)
zmodload zsh/zpty || exit 77
zpty z zsh -f -i
zpty -w z "autoload -U compinit; compinit -u -D; source $1; dump() { print -r -- \"\$BUFFER\" > $2; print -n 'DUMP''ED'; }; zle -N dump; bindkey '^X^P' dump; bindkey '^I' complete-word; PS1='RE''ADY> '"
zpty -r z seen '*READY> ' || exit 1
zpty -w -n z "$3"$'\t\x18\x10'
zpty -r z seen '*DUMPED*' || exit 1
zpty -d z
