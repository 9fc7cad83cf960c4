/** The service's version, as its package names it (MCP's server info and the traces' resource use it). */
export const SERVICE_VERSION = '0.1.0';
