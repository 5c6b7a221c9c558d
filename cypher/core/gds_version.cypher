// Version of the Graph Data Science library loaded in the server.
RETURN gds.version() AS gds_version
