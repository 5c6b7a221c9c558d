// Whether the server has the Graph Data Science library (AuraDB Free/Pro and a local server
// with KG_GDS=false do not): asked before any gds.* call.
SHOW FUNCTIONS YIELD name
WHERE name = 'gds.version'
RETURN count(*) > 0 AS available
