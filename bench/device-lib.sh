# device-lib.sh - helpers the device scripts share (sourced, not run).

# one event's numeric fields from a JSON log, as JSON: ev LOG EVENT
ev() { python3 -c "import json,sys
for l in open(sys.argv[1]):
    if l.startswith('{'):
        d = json.loads(l)
        if d.get('event') == sys.argv[2]:
            print(json.dumps({k: v for k, v in d.items() if isinstance(v, (int, float))})); break
else: print('{}')" "$1" "$2"; }
