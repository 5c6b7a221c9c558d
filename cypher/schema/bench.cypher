// Indexes the PerspectiveBench queries rely on : the exporter and path reasons look edges up by uid.
CREATE INDEX relates_uid IF NOT EXISTS FOR ()-[r:RELATES]-() ON (r.uid);
