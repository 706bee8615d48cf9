"""Projects: labelled namespaces with their members."""
