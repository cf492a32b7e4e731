# netdata area
