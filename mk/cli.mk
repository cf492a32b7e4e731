# cli area
