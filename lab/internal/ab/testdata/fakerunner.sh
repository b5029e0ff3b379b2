#!/bin/sh
# A stand-in for a lab/runner program under -serve, for tests: it speaks
# the protocol (lab/runner's Hello and Answer) and answers every slice
# with 100,000 IDs costing FAKE_COST ns each (100 unless set), wobbled by
# up to 1% by the request's number and the process id, so that two
# processes never answer alike. FAKE_PLANT is the plant it reports,
# FAKE_VIOLATIONS the order violations of every slice, FAKE_DUPLICATES
# the duplicates of every check. Lines are read one at a time, so that an
# answer goes out before the next request comes.
cost=${FAKE_COST:-100}
echo '{"protocol":"snowlab-ab/1","subjects":["fake/a","fake/b"],"gomaxprocs":2,"plant":"'"${FAKE_PLANT:-none}"'","cpu":true}'
i=0
while read -r verb name g a b; do
	i=$((i + 1))
	case $verb in
	slice)
		w=$(((i * 7919 + $$ * 104729) % 201 - 100))
		ns=$((100000 * cost + w * cost * 10))
		echo '{"ids":100000,"wall_ns":'"$ns"',"cpu_ns":'"$ns"',"order_violations":'"${FAKE_VIOLATIONS:-0}"'}'
		;;
	check)
		echo '{"ids":'"$a"',"duplicates":'"${FAKE_DUPLICATES:-0}"'}'
		;;
	*)
		echo '{"err":"bad request"}'
		exit 2
		;;
	esac
done
