"""kconnect's engine: the plug-in API (`connect.api`) and the runtime that runs it (`connect.runtime`)."""
