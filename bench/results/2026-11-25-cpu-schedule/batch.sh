#!/bin/bash
# batch.sh FILE : lines "NAME SCENE SEED POSW POSR [--set ...]" ("-" = unset), 2 at a time
run1() {
  read -r name scene seed w r rest <<<"$1"
  [ "$w" = - ] && w=; [ "$r" = - ] && r=
  eval "CUPLAS_EXP_POSW='$w' CUPLAS_EXP_POSR='$r' /tmp/lv/run.sh $name $scene $seed $rest"
}
export -f run1
grep -v '^#' "$1" | grep . | xargs -d '\n' -P 2 -I{} bash -c 'run1 "$@"' _ {}
