import { evictingReplicaSuite } from './evicting-replica.js';
import { cluster, failoverSuite, pair, sentinel } from './suite.js';

// One file, so they run one after another: each kills a master of its own processes, and a
// failover is timed by the cluster's or the sentinel's own clocks, which several at once on a small
// machine would stretch past the sender's retries.
failoverSuite('a Redis Cluster (3 masters, 3 replicas)', cluster);
failoverSuite('Redis Sentinel (a master and its replica)', sentinel);
failoverSuite('a master and its replica behind one address, promoted by hand', pair);
// A failover to a replica that evicts: refused until fixed, nothing lost.
evictingReplicaSuite();
