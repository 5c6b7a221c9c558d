// One lease per leased key (an eval run id, or build:<domain>): MERGE on it is atomic.
CREATE CONSTRAINT lease_key IF NOT EXISTS FOR (n:Lease) REQUIRE n.key IS UNIQUE;
