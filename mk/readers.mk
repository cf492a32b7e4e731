# readers area
